/* prune_internal.h - what the three files of the prune pass share.
 *
 * Why three files: pruning is one pass but three distinct jobs - finding
 * which tensors must share a channel mask (prune_groups.c), choosing the
 * kept channels of each group (prune.c, with the spec file and the report)
 * and rewriting constants and shapes (prune_apply.c) - each of which is
 * easier to check alone.
 *
 * Channel model: every float activation tensor of rank >= 2 has its
 * channels on axis 1; channel c owns the indices [c*blk, (c+1)*blk) of that
 * axis (blk = 1 for NCHW maps; a Flatten of [N,C,H,W] gives [N, C*H*W] with
 * blk = H*W). Tensors whose channels must be kept or dropped together are
 * joined in one group (union-find over tensor indices).
 */
#ifndef ONNX2HLS_PRUNE_INTERNAL_H
#define ONNX2HLS_PRUNE_INTERNAL_H

#include <stdbool.h>

#include "passes.h"
#include "pass_util.h"

typedef struct {
    IrGraph *g;
    int nt;              /* tensors at analysis time */
    int *parent;         /* union-find over tensors */
    int64_t *blk;        /* per tensor: elements of axis 1 per channel; 0 = not a channel tensor */
    bool *frozen;        /* per tensor, meaningful at roots after prune_groups_finish() */
    bool *source;        /* per layer: chooses its out[0] channels (conv, fc) */
    int *concat_of;      /* per tensor: Concat layer producing it (derived mask), -1 */
    bool *has_source;    /* per root */
    int *n_concat;       /* per root: Concat outputs in the group */
    int64_t *cut;        /* per root: channels to remove */
    bool **keep;         /* per root: kept channels, NULL = all kept */
    int64_t *n_keep;     /* per root */
} Pruner;

/* ----------------------------------------------- prune_groups.c */

int prune_init(Pruner *P, IrGraph *g);
void prune_free(Pruner *P);
int prune_find(Pruner *P, int t);
/* channels of t (dims[1]/blk), -1 when t is not a channel tensor */
int64_t prune_chan(const Pruner *P, int t);
/* Build the groups from every live layer, then settle frozen roots. */
void prune_groups_build(Pruner *P);
/* Conv with one group (a filter sees every input channel). */
bool prune_conv_full(const IrGraph *g, const IrLayer *L);
/* Depthwise conv with one output per input channel. */
bool prune_conv_dw(const IrGraph *g, const IrLayer *L);
/* Aligned axis of constant c for the channel axis of a rank-r tensor with D
 * entries on axis 1: -2 broadcast (size 1 or absent), >= 0 the axis to
 * slice, -1 incompatible. */
int prune_const_axis(const IrGraph *g, int c, int r, int64_t D);

/* ------------------------------------------------ prune_apply.c */

/* Mask of t's group: NULL when every channel of t is kept. */
const bool *prune_mask(Pruner *P, int t);
/* Rewrite every live layer's constants and every tensor's shape. */
void prune_apply(Pruner *P);

/* ---------------------------------------------- prune_recover.c */

typedef struct PruneRecover PruneRecover;
/* Calibration statistics (opt->prune_calib) of the layers reading the
 * groups with cut > 0, on the unpruned graph. NULL after an error on d. */
PruneRecover *prune_recover_begin(Pruner *P, const PassOptions *opt, IrDiag *d);
/* Kept channels of group root, chosen by least reconstruction error of its
 * readers; NULL when a reader cannot be refit (the caller ranks by L1). */
bool *prune_recover_select(PruneRecover *R, int root, int64_t C, int64_t cut);
/* Save the unpruned view; call just before prune_apply. 0 ok. */
int prune_recover_snapshot(PruneRecover *R);
/* Refit every refittable layer downstream of a cut (after prune_apply). */
int prune_recover_refit(PruneRecover *R, IrDiag *d);
void prune_recover_end(PruneRecover *R);

#endif
