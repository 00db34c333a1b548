/* xstatus.h - the standalone BSP's status code the baremetal backend tests
 * (embeddedsw lib/bsp/standalone/src/common/xstatus.h, MIT). */
#ifndef O2H_SDK_XSTATUS_H
#define O2H_SDK_XSTATUS_H

#define XST_SUCCESS 0L

#endif
