#!/usr/bin/python3
"""make_samples.py - builds the small sample CNNs bundled in samples/.

They stand in for real networks in the test suite (which must run without
any external model files): each exercises the structures the compiler cares
about at a size that compiles and runs in milliseconds.

  mobilenet_tiny     MobileNetV2-like: 3x3 stem, inverted residual blocks
                     (pointwise expand, depthwise 3x3, pointwise project),
                     Relu6 as Clip, residual Adds, global pool, Gemm
  mobilenet_tiny_bn  the same network with BatchNormalization kept; the
                     folded weights of mobilenet_tiny are computed from it,
                     so both give the same outputs
  resnet_tiny        ResNet-like: 7x7 stride-2 stem, max pool, basic blocks
                     with 1x1 stride-2 downsampling shortcuts, Relu after Add
  effnet_tiny        EfficientNet-like: SiLU as x*Sigmoid(x), squeeze-excite
                     (GlobalAveragePool, 1x1 convs, Sigmoid, channel Mul),
                     HardSwish (opset 14), Flatten + MatMul + Add classifier

Weights are random with fixed seeds. Needs Debian's python3-onnx (and numpy).
Reference outputs are made separately by make_refs.sh (ONNX Runtime).
usage: make_samples.py OUTDIR
"""
import sys
import numpy as np
import onnx
from onnx import helper, numpy_helper, TensorProto


class Builder:
    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)
        self.nodes, self.inits, self.n = [], [], 0

    def name(self, p):
        self.n += 1
        return f"{p}_{self.n}"

    def const(self, arr, p="w"):
        n = self.name(p)
        self.inits.append(numpy_helper.from_array(np.asarray(arr), n))
        return n

    def node(self, op, inputs, n_out=1, **attrs):
        nm = self.name(op.lower())
        outs = [f"{nm}_out{i}" if n_out > 1 else f"{nm}_out" for i in range(n_out)]
        self.nodes.append(helper.make_node(op, inputs, outs, name=nm, **attrs))
        return outs[0] if n_out == 1 else outs

    def weights(self, f, c, k):
        fan_in = c * k * k
        return (self.rng.standard_normal((f, c, k, k)) * np.sqrt(2.0 / fan_in)).astype(np.float32)

    def bn_params(self, c):
        g = self.rng.uniform(0.5, 1.5, c).astype(np.float32)
        b = self.rng.uniform(-0.2, 0.2, c).astype(np.float32)
        m = self.rng.uniform(-0.2, 0.2, c).astype(np.float32)
        v = self.rng.uniform(0.5, 2.0, c).astype(np.float32)
        return g, b, m, v

    def conv_bn(self, x, c, f, k, s, group=1, keep_bn=False, params=None):
        """conv without bias followed by BN; folded unless keep_bn"""
        w, (g, b, m, v) = params
        pad = k // 2
        attrs = dict(kernel_shape=[k, k], strides=[s, s], pads=[pad] * 4, group=group)
        if keep_bn:
            y = self.node("Conv", [x, self.const(w)], **attrs)
            return self.node("BatchNormalization", [y, self.const(g, "gamma"), self.const(b, "beta"),
                                                    self.const(m, "mean"), self.const(v, "var")],
                             epsilon=1e-5)
        scale = g / np.sqrt(v + 1e-5)
        wf = (w * scale[:, None, None, None]).astype(np.float32)
        bf = (b - m * scale).astype(np.float32)
        return self.node("Conv", [x, self.const(wf), self.const(bf, "b")], **attrs)

    def relu6(self, x):
        return self.node("Clip", [x, self.const(np.float32(0.0), "lo"), self.const(np.float32(6.0), "hi")])

    def model(self, x_shape, out, out_shape, name, opset=13):
        g = helper.make_graph(self.nodes, name,
                              [helper.make_tensor_value_info("input", TensorProto.FLOAT, x_shape)],
                              [helper.make_tensor_value_info(out, TensorProto.FLOAT, out_shape)],
                              self.inits)
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)], producer_name="onnx2hls-samples")
        m.ir_version = 7
        onnx.checker.check_model(m)
        return m


def mobilenet_tiny(keep_bn):
    b = Builder(7)
    rng = np.random.default_rng(11)  # parameters shared by both forms

    def p(f, c, k):
        w = (rng.standard_normal((f, c, k, k)) * np.sqrt(2.0 / (c * k * k))).astype(np.float32)
        g = rng.uniform(0.5, 1.5, f).astype(np.float32)
        be = rng.uniform(-0.2, 0.2, f).astype(np.float32)
        m = rng.uniform(-0.2, 0.2, f).astype(np.float32)
        v = rng.uniform(0.5, 2.0, f).astype(np.float32)
        return w, (g, be, m, v)

    x = b.relu6(b.conv_bn("input", 3, 16, 3, 2, keep_bn=keep_bn, params=p(16, 3, 3)))
    c = 16
    for (t, f, s) in [(1, 8, 1), (4, 12, 2), (4, 12, 1), (4, 16, 2), (4, 16, 1)]:
        h = c * t
        y = x
        if t != 1:
            y = b.relu6(b.conv_bn(y, c, h, 1, 1, keep_bn=keep_bn, params=p(h, c, 1)))
        y = b.relu6(b.conv_bn(y, h, h, 3, s, group=h, keep_bn=keep_bn, params=p(h, 1, 3)))
        y = b.conv_bn(y, h, f, 1, 1, keep_bn=keep_bn, params=p(f, h, 1))
        x = b.node("Add", [x, y]) if (s == 1 and c == f) else y
        c = f
    x = b.relu6(b.conv_bn(x, c, 64, 1, 1, keep_bn=keep_bn, params=p(64, c, 1)))
    x = b.node("GlobalAveragePool", [x])
    x = b.node("Flatten", [x], axis=1)
    wfc = (rng.standard_normal((10, 64)) * 0.1).astype(np.float32)
    bfc = rng.uniform(-0.1, 0.1, 10).astype(np.float32)
    y = b.node("Gemm", [x, b.const(wfc), b.const(bfc, "b")], transB=1)
    return b.model([1, 3, 32, 32], y, [1, 10], "mobilenet_tiny_bn" if keep_bn else "mobilenet_tiny")


def resnet_tiny():
    b = Builder(21)

    def cb(x, c, f, k, s):
        return b.conv_bn(x, c, f, k, s, params=(b.weights(f, c, k), b.bn_params(f)))

    x = b.node("Relu", [cb("input", 3, 16, 7, 2)])
    x = b.node("MaxPool", [x], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    c = 16
    for f, s in [(16, 1), (32, 2), (32, 1), (64, 2)]:
        y = b.node("Relu", [cb(x, c, f, 3, s)])
        y = cb(y, f, f, 3, 1)
        sc = x if (s == 1 and c == f) else cb(x, c, f, 1, s)
        x = b.node("Relu", [b.node("Add", [y, sc])])
        c = f
    x = b.node("GlobalAveragePool", [x])
    x = b.node("Flatten", [x], axis=1)
    w = (b.rng.standard_normal((10, c)) * 0.1).astype(np.float32)
    y = b.node("Gemm", [x, b.const(w), b.const(np.zeros(10, np.float32) + 0.05, "b")], transB=1)
    return b.model([1, 3, 64, 64], y, [1, 10], "resnet_tiny")


def effnet_tiny():
    b = Builder(33)

    def cb(x, c, f, k, s, group=1):
        return b.conv_bn(x, c, f, k, s, group=group, params=(b.weights(f, c // group, k), b.bn_params(f)))

    def silu(x):
        return b.node("Mul", [x, b.node("Sigmoid", [x])])

    x = silu(cb("input", 3, 16, 3, 2))
    c = 16
    for f, s in [(16, 1), (24, 2)]:
        h = c * 4
        y = silu(cb(x, c, h, 1, 1))
        y = silu(cb(y, h, h, 3, s, group=h))
        # squeeze-excite
        z = b.node("GlobalAveragePool", [y])
        r = max(4, c // 4)
        z = b.node("Conv", [z, b.const(b.weights(r, h, 1)), b.const(np.zeros(r, np.float32) + 0.1, "b")])
        z = silu(z)
        z = b.node("Conv", [z, b.const(b.weights(h, r, 1)), b.const(np.zeros(h, np.float32), "b")])
        z = b.node("Sigmoid", [z])
        y = b.node("Mul", [y, z])
        y = cb(y, h, f, 1, 1)
        x = b.node("Add", [x, y]) if (s == 1 and c == f) else y
        c = f
    x = b.node("HardSwish", [cb(x, c, 32, 1, 1)])
    x = b.node("GlobalAveragePool", [x])
    x = b.node("Flatten", [x], axis=1)
    w = (b.rng.standard_normal((32, 10)) * 0.1).astype(np.float32)
    x = b.node("MatMul", [x, b.const(w)])
    y = b.node("Add", [x, b.const(np.linspace(-0.1, 0.1, 10).astype(np.float32), "b")])
    return b.model([1, 3, 32, 32], y, [1, 10], "effnet_tiny", opset=14)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "."
    models = {
        "mobilenet_tiny": (mobilenet_tiny(False), [1, 3, 32, 32]),
        "mobilenet_tiny_bn": (mobilenet_tiny(True), [1, 3, 32, 32]),
        "resnet_tiny": (resnet_tiny(), [1, 3, 64, 64]),
        "effnet_tiny": (effnet_tiny(), [1, 3, 32, 32]),
    }
    for name, (m, shape) in models.items():
        onnx.save(m, f"{out}/{name}.onnx")
        rng = np.random.default_rng(2026)  # same input for a model and its _bn form
        x = rng.uniform(-1, 1, shape).astype(np.float32)
        x.tofile(f"{out}/{name}.in.f32")
        print(name, ",".join(map(str, shape)))


if __name__ == "__main__":
    main()
