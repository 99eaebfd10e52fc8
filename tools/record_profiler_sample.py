"""Record what MindSpore 2.10's CPU profiler writes, as the sample graphcell's profiler files are
tested against (file names, columns, the trace's event shape). Run in the MindSpore venv:

    /opt/msvenv/bin/python tools/record_profiler_sample.py

It profiles two calls of a small Dense + ReLU in PyNative with ``Profiler(output_path=...)`` and
``analyse()``, and copies the four files graphcell writes too into
``tests/graphcell/profiler/ms_sample/`` (keeping their relative paths).
"""
import glob
import os
import shutil
import sys
import tempfile

import numpy as np

FILES = ("FRAMEWORK/cpu_op_type_info_0.csv", "FRAMEWORK/cpu_op_detail_info_0.csv",
         "FRAMEWORK/cpu_op_execute_timestamp_0.txt", "ASCEND_PROFILER_OUTPUT/trace_view.json")
OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "graphcell", "profiler", "ms_sample")


def main() -> int:
    import mindspore as ms
    from mindspore import Tensor, nn
    from mindspore.profiler import Profiler
    ms.set_context(mode=ms.PYNATIVE_MODE)
    ms.set_seed(0)
    net = nn.Dense(3, 2)
    x = Tensor(np.ones((4, 3), np.float32))
    with tempfile.TemporaryDirectory() as tmp:
        prof = Profiler(output_path=tmp)
        for _ in range(2):
            ms.ops.relu(net(x))
        prof.stop()
        prof.analyse()
        (run,) = glob.glob(os.path.join(tmp, "*_ascend_ms"))
        for f in FILES:
            os.makedirs(os.path.dirname(os.path.join(OUT, f)), exist_ok=True)
            shutil.copy(os.path.join(run, f), os.path.join(OUT, f))
    print(f"wrote {len(FILES)} files under {os.path.normpath(OUT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
