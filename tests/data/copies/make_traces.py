#!/usr/bin/env python3
"""make_traces.py: writes the two hand-made traces of tests/test_copies.c (issue 28 items 5 and 6).
Kineto layout, integer epoch microseconds (PyTorch <= 2.3), host time before each step's first
kernel, one kernel whose launch was lost. Figures are planted; the test states them.
Run from the repository root: python3 tests/data/copies/make_traces.py"""
import json

BASE = 1700000000000000  # µs
PID, TID, DEV = 4242, 4242, 0


class T:
    def __init__(self):
        self.ev, self.corr = [], 100

    def x(self, cat, name, ts, dur, pid=PID, tid=TID, **args):
        e = {"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid, "ts": BASE + ts, "dur": dur}
        if args:
            e["args"] = args
        self.ev.append(e)

    def launch(self, call, ts, dur, gpu_cat, gpu_name, gts, gdur, stream=7):
        self.corr += 1
        self.x("cuda_runtime", call, ts, dur, correlation=self.corr, **{"External id": self.corr})
        self.x(gpu_cat, gpu_name, gts, gdur, pid=DEV, tid=stream, device=DEV, stream=stream, correlation=self.corr)

    def write(self, path):
        doc = {"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3"}],
               "traceEvents": sorted(self.ev, key=lambda e: (e["ts"], -e["dur"]))}
        with open(path, "w") as f:
            json.dump(doc, f, indent=1)
            f.write("\n")


GEMM = "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64"


def d2d():
    """3 steps of 9200 µs on the CPU; each step's GPU work runs 1000 µs behind its launches:
    a 4000 µs GEMM, a 1300 µs D2D copy, a 20 µs memset, 270 µs idle (GPU side: everything was
    launched long before), a 10 µs pageable H2D copy, a 3600 µs GEMM. A pinned H2D copy and a
    kernel whose launch was lost run hidden under the first GEMM."""
    t = T()
    for s in range(3):
        p = s * 9200
        t.x("user_annotation", "ProfilerStep#%d" % (s + 5), p, 9200)
        t.x("cpu_op", "preprocess", p, 600)
        t.x("cpu_op", "aten::mm", p + 640, 30)
        t.launch("cudaLaunchKernel", p + 650, 10, "kernel", GEMM, p + 1000, 4000)
        t.x("cpu_op", "aten::copy_", p + 680, 70)
        t.launch("cudaMemcpyAsync", p + 685, 10, "gpu_memcpy", "Memcpy DtoD (Device -> Device)", p + 5000, 1300, stream=20)
        t.launch("cudaMemsetAsync", p + 700, 8, "gpu_memset", "Memset (Device)", p + 6300, 20, stream=20)
        t.launch("cudaMemcpyAsync", p + 712, 10, "gpu_memcpy", "Memcpy HtoD (Pinned -> Device)", p + 1100, 40, stream=21)
        t.launch("cudaMemcpyAsync", p + 725, 10, "gpu_memcpy", "Memcpy HtoD (Pageable -> Device)", p + 6590, 10, stream=21)
        t.x("cpu_op", "aten::mm", p + 740, 30)
        t.launch("cudaLaunchKernel", p + 750, 10, "kernel", GEMM, p + 6600, 3600)
        if s == 1:  # its launch call was lost
            t.x("kernel", "void at::native::vectorized_elementwise_kernel<4>", p + 2000, 5, pid=DEV, tid=7, device=DEV,
                stream=7)
    t.write("tests/data/copies/gpu0-d2d_copies.pt.trace.json")


def pageable():
    """3 steps of 10000 µs: preprocess 1000 µs; a 500 µs GEMM; aten::to > aten::_to_copy >
    aten::copy_ > a 1600 µs cudaMemcpyAsync whose pageable H2D copy starts 50 µs before the call
    returns (the GPU idles 1075 µs inside the call); a 1000 µs kernel; cudaFree without a
    correlation id (1300 µs, in empty_cache) while the GPU runs dry (575 µs of it); a 4000 µs
    GEMM; a bare cudaStreamSynchronize without args that returns 10 µs after it."""
    t = T()
    for s in range(3):
        p = s * 10000
        t.x("user_annotation", "ProfilerStep#%d" % (s + 2), p, 10000)
        t.x("cpu_op", "preprocess", p, 1000)
        t.x("cpu_op", "aten::mm", p + 1000, 30)
        t.launch("cudaLaunchKernel", p + 1010, 10, "kernel", GEMM, p + 1025, 500)
        t.x("cpu_op", "aten::to", p + 1040, 1660)
        t.x("cpu_op", "aten::_to_copy", p + 1042, 1656)
        t.x("cpu_op", "aten::copy_", p + 1045, 1650)
        t.launch("cudaMemcpyAsync", p + 1050, 1600, "gpu_memcpy", "Memcpy HtoD (Pageable -> Device)", p + 2600, 100)
        t.x("cpu_op", "aten::add", p + 2700, 30)
        t.launch("cudaLaunchKernel", p + 2710, 10, "kernel", "void at::native::vectorized_elementwise_kernel<4>",
                 p + 2725, 1000)
        t.x("cpu_op", "empty_cache", p + 2990, 1320)
        t.x("cuda_runtime", "cudaFree", p + 3000, 1300)  # no args: no correlation id
        t.x("cpu_op", "aten::mm", p + 4820, 30)
        t.launch("cudaLaunchKernel", p + 4830, 10, "kernel", GEMM, p + 4845, 4000)
        t.x("cuda_runtime", "cudaStreamSynchronize", p + 8700, 155)  # no args
    t.write("tests/data/copies/gpu0-pageable_copy.pt.trace.json")


d2d()
pageable()
