/* rt_time.c - wall-clock and CPU milliseconds for the generated program's
 * timing.
 *
 * Why it is separate: it is the one file that needs an OS interface. Wall
 * time uses the monotonic POSIX clock when there is one, C11 timespec_get
 * otherwise, and clock() as the last resort (bare metal libcs). CPU time
 * (what a run costs on a loaded machine, without the time it waited) uses
 * the process CPU clock, else clock(). */
#if !defined(_POSIX_C_SOURCE) && !defined(_GNU_SOURCE)
#define _POSIX_C_SOURCE 199309L
#endif
#include "o2h_rt.h"

#include <time.h>

#if defined(__unix__) || defined(__APPLE__)
#include <unistd.h>
#endif

double o2h_now_ms(void)
{
#if defined(_POSIX_TIMERS) && _POSIX_TIMERS > 0 && defined(CLOCK_MONOTONIC)
    struct timespec ts;
    if (clock_gettime(CLOCK_MONOTONIC, &ts) == 0)
        return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
#endif
#if defined(TIME_UTC) && defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
    {
        struct timespec u;
        if (timespec_get(&u, TIME_UTC) == TIME_UTC)
            return (double)u.tv_sec * 1e3 + (double)u.tv_nsec * 1e-6;
    }
#endif
    return (double)clock() * 1e3 / (double)CLOCKS_PER_SEC;
}

double o2h_cpu_ms(void)
{
#if defined(_POSIX_TIMERS) && _POSIX_TIMERS > 0 && defined(CLOCK_PROCESS_CPUTIME_ID)
    struct timespec ts;
    if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) == 0)
        return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
#endif
    return (double)clock() * 1e3 / (double)CLOCKS_PER_SEC;
}
