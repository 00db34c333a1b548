/* test_rt_int_novec.c - the integer kernels' plain-C path (O2H_NO_VEC, as
 * built by compilers without vector extensions) against the same
 * references as test_rt_int.c: both paths must give identical results.
 * Built only for targets whose default build has vector integer kernels
 * (tests/CMakeLists.txt); elsewhere test_rt_int runs the plain path. */
#define O2H_NO_VEC 1
#include "../../runtime/rt_int_conv.c"
#include "../../runtime/rt_int_core.c"
#include "../../runtime/rt_int_dw.c"
#include "../../runtime/rt_int_gemm.c"
#include "../../runtime/rt_int_pool.c"
#include "../../runtime/rt_int_requant.c"
#include "../../runtime/rt_int_wide.c"
#include "../../runtime/rt_int_wino.c"

#include "test_rt_int.c"
