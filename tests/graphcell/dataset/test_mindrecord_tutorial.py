"""A page in the style of MindSpore's "Data Loading and Processing" tutorial, run by
``tools/run_tutorial.py`` as MindSpore code: convert data to MindRecord with ``FileWriter``, load
it with ``MindDataset``, map and batch it, and plot a sample (the tutorial imports matplotlib; the
runner draws headless, or through a stand-in where matplotlib is not installed).

The page is written for this test; MindSpore's own tutorial pages stay outside the repository
(``python tools/run_tutorial.py path/to/dataset.md`` runs a downloaded one).
"""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]

PAGE = '''
# Our own MindRecord page

```python
import os
import numpy as np
from mindspore.dataset import MindDataset, transforms
from mindspore.mindrecord import FileWriter
import mindspore
import matplotlib.pyplot as plt
```

Write ten samples into two shards.

```python
for name in ("sounds.mindrecord0", "sounds.mindrecord1"):
    for path in (name, name + ".db"):
        if os.path.exists(path):
            os.remove(path)
writer = FileWriter(file_name="sounds.mindrecord", shard_num=2, overwrite=True)
writer.add_schema({"animal": {"type": "string"}, "legs": {"type": "int32"},
                   "wave": {"type": "float32", "shape": [-1]}}, "sounds")
for i in range(5):
    writer.write_raw_data([{"animal": a, "legs": 2 + 2 * (i % 2),
                            "wave": np.sin(np.arange(4 + i, dtype=np.float32) * k)}
                           for k, a in ((1.0, f"cat{i}"), (0.5, f"owl{i}"))])
writer.commit()
```

Read them back.

```python
dataset = MindDataset("sounds.mindrecord0", columns_list=["legs", "animal"], shuffle=False)
print("size", dataset.get_dataset_size(), dataset.get_col_names())
for legs, animal in dataset.create_tuple_iterator(output_numpy=True):
    print(str(animal), int(legs))
legs = dataset.map(transforms.TypeCast(mindspore.float32), "legs").project(["legs"]).batch(4)
print([batch[0].shape for batch in legs])
waves = MindDataset("sounds.mindrecord1", columns_list=["wave"], shuffle=True, num_shards=2,
                    shard_id=0)
plt.figure(figsize=(4, 2))
for (wave,) in waves:
    plt.plot(wave.asnumpy())
plt.show()
print("plotted", waves.get_dataset_size())
```
'''


def test_run_tutorial_runs_a_mindrecord_page(tmp_path):
    page = tmp_path / "page.md"
    page.write_text(PAGE)
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "run_tutorial.py"), str(page)],
                          capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    assert lines[0] == "size 10 ['legs', 'animal']"
    # each call's two rows go one to each shard; the set is read shard by shard
    assert lines[1:11] == [f"{a}{i} {2 + 2 * (i % 2)}" for a in ("cat", "owl") for i in range(5)]
    assert lines[11] == "[(4,), (4,), (2,)]"
    assert lines[12] == "plotted 5"
