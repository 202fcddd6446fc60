
; __CLANG_OFFLOAD_BUNDLE____START__ host-x86_64-unknown-linux-gnu-
; Host side of a tiny HIP program: launches vector_add on the GPU.
target triple = "x86_64-unknown-linux-gnu"

declare i32 @hipLaunchKernel(ptr, i64, i32, i64, i32, ptr, i64, ptr)

define void @launch_vector_add(ptr %a, ptr %b, ptr %c) {
entry:
  ret void
}

; __CLANG_OFFLOAD_BUNDLE____END__ host-x86_64-unknown-linux-gnu-

; __CLANG_OFFLOAD_BUNDLE____START__ hip-amdgcn-amd-amdhsa--gfx90a
; Device side of vector_add, compiled for gfx90a.
target triple = "amdgcn-amd-amdhsa"

define amdgpu_kernel void @vector_add(ptr addrspace(1) %a, ptr addrspace(1) %b, ptr addrspace(1) %c) #0 {
entry:
  %i = call i32 @llvm.amdgcn.workitem.id.x()
  %pa = getelementptr float, ptr addrspace(1) %a, i32 %i
  %pb = getelementptr float, ptr addrspace(1) %b, i32 %i
  %pc = getelementptr float, ptr addrspace(1) %c, i32 %i
  %x = load float, ptr addrspace(1) %pa
  %y = load float, ptr addrspace(1) %pb
  %s = fadd float %x, %y
  store float %s, ptr addrspace(1) %pc
  ret void
}

declare i32 @llvm.amdgcn.workitem.id.x()

attributes #0 = { "target-cpu"="gfx90a" }

; __CLANG_OFFLOAD_BUNDLE____END__ hip-amdgcn-amd-amdhsa--gfx90a

; __CLANG_OFFLOAD_BUNDLE____START__ hip-amdgcn-amd-amdhsa--gfx1100
; Device side of vector_add, compiled for gfx1100.
target triple = "amdgcn-amd-amdhsa"

define amdgpu_kernel void @vector_add(ptr addrspace(1) %a, ptr addrspace(1) %b, ptr addrspace(1) %c) #0 {
entry:
  %i = call i32 @llvm.amdgcn.workitem.id.x()
  %pa = getelementptr float, ptr addrspace(1) %a, i32 %i
  %pb = getelementptr float, ptr addrspace(1) %b, i32 %i
  %pc = getelementptr float, ptr addrspace(1) %c, i32 %i
  %x = load float, ptr addrspace(1) %pa
  %y = load float, ptr addrspace(1) %pb
  %s = fadd float %x, %y
  store float %s, ptr addrspace(1) %pc
  ret void
}

declare i32 @llvm.amdgcn.workitem.id.x()

attributes #0 = { "target-cpu"="gfx1100" }

; __CLANG_OFFLOAD_BUNDLE____END__ hip-amdgcn-amd-amdhsa--gfx1100
