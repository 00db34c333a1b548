/* xo2h_top.h - the declarations of the driver Vitis HLS generates for the
 * top function o2h_top (s_axilite bundle `control`, m_axi pointers with
 * 64-bit addresses) that OUT/accel's baremetal backend uses: the form of
 * every X<Top>.h it writes for the standalone BSP, classic and SDT flows.
 * Compile-checking only: see README.md. */
#ifndef O2H_SDK_XO2H_TOP_H
#define O2H_SDK_XO2H_TOP_H

#include "xil_types.h"
#include "xstatus.h"

typedef struct {
    u64 Control_BaseAddress;
    u32 IsReady;
} XO2h_top;

#ifdef SDT
int XO2h_top_Initialize(XO2h_top *InstancePtr, UINTPTR BaseAddress);
#else
int XO2h_top_Initialize(XO2h_top *InstancePtr, u16 DeviceId);
#endif

void XO2h_top_Start(XO2h_top *InstancePtr);
u32 XO2h_top_IsDone(XO2h_top *InstancePtr);

void XO2h_top_Set_fm_in(XO2h_top *InstancePtr, u64 Data);
void XO2h_top_Set_fm_bnd(XO2h_top *InstancePtr, u64 Data);
void XO2h_top_Set_fm_r(XO2h_top *InstancePtr, u64 Data);
void XO2h_top_Set_fm_w(XO2h_top *InstancePtr, u64 Data);
void XO2h_top_Set_wimg(XO2h_top *InstancePtr, u64 Data);
void XO2h_top_Set_desc(XO2h_top *InstancePtr, u64 Data);
void XO2h_top_Set_pp(XO2h_top *InstancePtr, u32 Data);
void XO2h_top_Set_run_sesl(XO2h_top *InstancePtr, u32 Data);
void XO2h_top_Set_first(XO2h_top *InstancePtr, u32 Data);
void XO2h_top_Set_last(XO2h_top *InstancePtr, u32 Data);

#endif
