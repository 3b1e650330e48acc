"""Anchors for BenchmarkGPUUserKernel (bench/gpu_userkernel_test.go): a
user's kernel from Python, source to launch, with CuPy's RawModule (NVRTC)
and Numba's cuda.jit, printed as Go benchmark lines with impl=cupy and
impl=numba:

  step=compile-cold  a source never seen, from text to its first launch
                     completed (CuPy: RawModule, get_function, launch,
                     sync, in a fresh cache folder; Numba: cuda.jit with
                     the signature of a new function, launch, sync)
  step=compile-warm  the same source again (CuPy: a new RawModule of the
                     same code; Numba: a new dispatcher of the same
                     function with cache=True, which finds it on disk)
  step=launch        one launch of the one-thread kernel with two device
                     arrays, over LAUNCHES launches and a sync

Each figure is the median over its repetitions, after one unmeasured.
Run with the Python that has CuPy and Numba (scripts/gpu-run.sh finds
it); a library that is missing is reported and skipped.
"""

import os
import statistics
import sys
import tempfile
import time

LAUNCHES = 2000

# The same text as bench/gpu_userkernel_test.go's userKernelSource.
SOURCE = ('// {tag}\nextern "C" __global__ void bump(unsigned long long *a, '
          'const unsigned long long *d) {{ a[0] = d[0] + 1; }}\n')


def median_ns(reps, run):
    """Median wall time of run(rep) over reps repetitions, in ns, after one
    unmeasured."""
    times = []
    for rep in range(reps + 1):
        t0 = time.perf_counter_ns()
        run(rep)
        if rep > 0:
            times.append(time.perf_counter_ns() - t0)
    return statistics.median(times)


def report(step, impl, ns):
    print(f"BenchmarkGPUUserKernel/step={step}/impl={impl} 1 {ns:.0f} ns/op {ns / 1e3:.3f} us", flush=True)


def cupy_steps():
    import cupy as cp

    a = cp.zeros(1, dtype=cp.uint64)
    d = cp.zeros(1, dtype=cp.uint64)
    stream = cp.cuda.Stream(non_blocking=True)

    def to_launch(src):
        kernel = cp.RawModule(code=src).get_function("bump")
        kernel((1,), (1,), (a, d), stream=stream)
        stream.synchronize()
        return kernel

    report("compile-cold", "cupy", median_ns(5, lambda rep: to_launch(SOURCE.format(tag=f"cold {time.time_ns()} {rep}"))))
    warm = SOURCE.format(tag="warm")
    kernel = to_launch(warm)
    report("compile-warm", "cupy", median_ns(20, lambda rep: to_launch(warm)))

    def launches(rep):
        for _ in range(LAUNCHES):
            kernel((1,), (1,), (a, d), stream=stream)
        stream.synchronize()

    report("launch", "cupy", median_ns(5, launches) / LAUNCHES)


def bump(a, d):
    a[0] = d[0] + 1


def numba_steps():
    import numpy as np

    # Numba 0.68 still names numpy.row_stack, which NumPy 2.4 removed (the
    # GPU machines' venv has both): the alias it had.
    if not hasattr(np, "row_stack"):
        np.row_stack = np.vstack
    from numba import cuda

    sig = "void(uint64[:], uint64[:])"
    a = cuda.device_array(1, dtype=np.uint64)
    d = cuda.to_device(np.zeros(1, dtype=np.uint64))
    stream = cuda.stream()

    def to_launch(kernel):
        kernel[1, 1, stream](a, d)
        stream.synchronize()
        return kernel

    def cold(rep):
        # A new function object: nothing cached for it.
        scope = {}
        exec(f"def bump_{rep}(a, d):\n    a[0] = d[0] + 1\n", scope)
        to_launch(cuda.jit(sig)(scope[f"bump_{rep}"]))

    report("compile-cold", "numba", median_ns(5, cold))
    kernel = to_launch(cuda.jit(sig, cache=True)(bump))
    report("compile-warm", "numba", median_ns(20, lambda rep: to_launch(cuda.jit(sig, cache=True)(bump))))

    def launches(rep):
        for _ in range(LAUNCHES):
            kernel[1, 1, stream](a, d)
        stream.synchronize()

    report("launch", "numba", median_ns(5, launches) / LAUNCHES)


def main():
    # Fresh caches: CuPy's kernel cache and Numba's (beside this file,
    # unless redirected) in a folder of this run.
    tmp = tempfile.mkdtemp(prefix="symchan-anchor-")
    os.environ.setdefault("CUPY_CACHE_DIR", os.path.join(tmp, "cupy"))
    os.environ.setdefault("NUMBA_CACHE_DIR", os.path.join(tmp, "numba"))
    status = 0
    for name, steps in (("cupy", cupy_steps), ("numba", numba_steps)):
        try:
            steps()
        except ImportError as e:
            print(f"anchor python_kernels: {name} is not installed ({e}): skipped", file=sys.stderr)
        except Exception as e:  # a failed anchor must not hide the others
            print(f"anchor python_kernels: {name} failed: {e!r}", file=sys.stderr)
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
