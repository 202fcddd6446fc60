# inputs.sh: the small images the packager goldens are made from (sourced by
# regen.sh and test/packager.test, in the current directory), and the
# command lines each golden package was made with.
printf 'ABCDEFGHIJ' > a.o
printf 'xyz' > c.cubin
printf 'BC\300\336 bitcode named .o' > bit.o
printf 'ptx' > f.s
printf 'fatbin' > f.fatbin
printf 'not bitcode' > f.bc
printf 'none' > noext
printf 'dot' > f.
printf 'spirv' > f.spv
: > empty.o

many_keys() {
	i=0
	while [ $i -lt 60 ]; do
		printf ',key%d=value%d' $i $((i * 7))
		i=$((i + 1))
	done
}
long_key() {
	printf "%${1}s" "" | tr ' ' "$2"
}

# name|arguments after -o <name>.bin
golden_cases() {
	cat <<CASES
two|--image=file=a.o,triple=amdgcn-amd-amdhsa,arch=gfx90a,kind=openmp --image=file=c.cubin,triple=nvptx64-nvidia-cuda,arch=sm_90,kind=cuda
collide|--image=file=a.o,kind=openmp,zeta=1,alpha=2,mid=3,triple=x,arch=
repeat|--image=file=a.o,file=bit.o,x=1,x=2,,=v,k=,x=3
many|--image=file=a.o,triple=t$(many_keys)
long|--image=file=a.o,$(long_key 65 k)=a,$(long_key 100 q)=$(long_key 130 v),$(long_key 200 z)=z,$(long_key 64 y)=
kinds|--image=file=f.s,kind=hip --image=file=f.fatbin,kind=sycl --image=file=f.bc,kind=bogus --image=file=noext --image=file=f.,arch=x --image=file=f.spv --image=file=bit.o,kind=cuda --image=file=empty.o,triple=e
tails|--image=file=a.o,triple=nvptx64-nvidia-cuda,arch=cuda,os=a-cuda,x=nvidia-cuda,y=a,z=da
none|
CASES
}
