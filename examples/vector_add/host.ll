; Host side of a tiny HIP program: launches vector_add on the GPU.
target triple = "x86_64-unknown-linux-gnu"

declare i32 @hipLaunchKernel(ptr, i64, i32, i64, i32, ptr, i64, ptr)

define void @launch_vector_add(ptr %a, ptr %b, ptr %c) {
entry:
  ret void
}
