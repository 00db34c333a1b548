/* bad_params.c - a template with parameter mistakes for the specializer's
 * tests: O2H_P_A defined twice, O2H_P_F function-like. */
#define O2H_P_A 1
#define O2H_P_A 2
#define O2H_P_F(x) (x)
#define O2H_P_B 3

int bad_use(void)
{
    return O2H_P_A + O2H_P_B + O2H_P_F(1);
}
