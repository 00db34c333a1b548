/* two_main.c - links two instances of small.c (prefixes a and b) into one
 * program: the prefixes keep their symbols apart, and each instance
 * computes with its own parameters. Prints "a.lo a.hi b.lo b.hi". */
#include <stdint.h>
#include <stdio.h>

typedef struct {
    int32_t lo, hi;
} Pair;

int32_t a_small_run(Pair *p);
int32_t b_small_run(Pair *p);
void a_small_local(int8_t out[2]);

int external_counter = 3;

int small_extern_fn(int x)
{
    return 10 * x;
}

int main(void)
{
    Pair a, b;
    int8_t loc[2];
    a_small_run(&a);
    b_small_run(&b);
    a_small_local(loc);
    printf("%d %d %d %d %d\n", (int)a.lo, (int)a.hi, (int)b.lo, (int)b.hi, loc[0] + loc[1]);
    return 0;
}
