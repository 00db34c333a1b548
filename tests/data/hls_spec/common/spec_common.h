/* spec_common.h - a common header for the specializer's test template:
 * names declared here belong to every instance and are never prefixed. */
#ifndef SPEC_COMMON_H
#define SPEC_COMMON_H

static inline int o2h_common_twice(int x)
{
    return 2 * x;
}

#endif
