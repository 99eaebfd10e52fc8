"""Programs in the style of MindSpore's beginner "Quick Start" pages, written as MindSpore code and
run after the import rename, on MNIST-format files written here.

The first trains an MLP with a hand-written loop (``value_and_grad``), evaluates it, saves and
reloads a checkpoint and predicts; the second trains a small CNN with ``Model.train``,
``ModelCheckpoint`` and ``LossMonitor``, evaluates, reloads the last checkpoint and predicts. Both
read the files through ``graphcell.dataset`` (``MnistDataset``, ``map``, ``batch``); the digits are
synthetic — each class is a bright bar at its own place — so that a few steps learn them. The
tutorial pages themselves are MindSpore's: ``tools/run_tutorial.py`` runs a downloaded page.
"""
import re
import runpy
import struct

import numpy as np
import pytest

pytest.importorskip("graphcell.dataset", reason="graphcell.dataset (issue 18, item 3) is not on "
                                                "this branch yet")

import graphcell as ms  # noqa: E402

# Our own programs in the style of MindSpore's "Quick Start" pages (written for this test: the
# tutorials themselves stay MindSpore's; tools/run_tutorial.py runs a downloaded page renamed).
# They use the same API paths a beginner meets: MnistDataset + map + batch, a Cell, a hand loop
# with value_and_grad and an optimizer, evaluation, save/load of a checkpoint, prediction.
QUICK_START = '''
import mindspore
from mindspore import nn, ops
from mindspore.dataset import MnistDataset, vision, transforms

def load(split, batch):
    digits = MnistDataset(f"MNIST_Data/{split}")
    scale = [vision.Rescale(1 / 255.0, 0.0), vision.Normalize(mean=(0.13,), std=(0.31,)),
             vision.HWC2CHW()]
    digits = digits.map(scale, "image").map(transforms.TypeCast(mindspore.int32), "label")
    return digits.batch(batch)

train_set, eval_set = load("train", 32), load("test", 32)
print(train_set.get_col_names())
images, labels = next(eval_set.create_tuple_iterator())
print(f"batch {images.shape} {images.dtype} / {labels.shape} {labels.dtype}")
first = next(eval_set.create_dict_iterator())
print(f"batch {first['image'].shape} {first['image'].dtype} / {first['label'].shape}")

class DigitNet(nn.Cell):
    def __init__(self, hidden=128):
        super().__init__()
        self.flat = nn.Flatten()
        self.body = nn.SequentialCell(nn.Dense(784, hidden), nn.ReLU(), nn.Dense(hidden, 10))

    def construct(self, image):
        return self.body(self.flat(image))

net = DigitNet()
criterion = nn.CrossEntropyLoss()
opt = nn.SGD(net.trainable_params(), learning_rate=0.05)

def loss_of(image, label):
    scores = net(image)
    return criterion(scores, label), scores

step_grads = mindspore.value_and_grad(loss_of, None, opt.parameters, has_aux=True)

def step(image, label):
    (loss, _), grads = step_grads(image, label)
    opt(grads)
    return loss

def evaluate(model, data):
    model.set_train(False)
    hits, seen, total_loss = 0, 0, 0.0
    for image, label in data.create_tuple_iterator():
        scores = model(image)
        total_loss += criterion(scores, label).asnumpy()
        hits += (scores.argmax(1) == label).asnumpy().sum()
        seen += len(image)
    print(f"accuracy {100 * hits / seen:.1f}% loss {total_loss / data.get_dataset_size():.4f}")

for epoch in range(3):
    net.set_train()
    for i, (image, label) in enumerate(train_set.create_tuple_iterator()):
        loss = step(image, label)
        if i % 10 == 0:
            print(f"epoch {epoch} step {i} loss {loss.asnumpy():.4f}")
    evaluate(net, eval_set)

mindspore.save_checkpoint(net, "digits.ckpt")
fresh = DigitNet()
missing, _ = mindspore.load_param_into_net(fresh, mindspore.load_checkpoint("digits.ckpt"))
print("missing", missing)
evaluate(fresh, eval_set)
for image, label in eval_set:
    print("guess", fresh(image).argmax(1)[:8], "truth", label[:8])
    break
'''

# The same data through Model: Model.train with ModelCheckpoint and LossMonitor, Model.eval, the
# last checkpoint reloaded, Model.predict; a small convolutional network.
MODEL_WORKFLOW = '''
import numpy as np
import mindspore as ms
import mindspore.dataset as ds
import mindspore.dataset.vision as vision
import mindspore.dataset.transforms as transforms
from mindspore import nn
from mindspore.train import Model, LossMonitor, ModelCheckpoint, CheckpointConfig

ms.set_context(mode=MODE)

def pipeline(folder, batch=32):
    data = ds.MnistDataset(folder)
    data = data.map(operations=transforms.TypeCast(ms.int32), input_columns="label")
    data = data.map(operations=[vision.Resize((32, 32)), vision.Rescale(1 / 255.0, 0.0),
                                vision.HWC2CHW()], input_columns="image")
    return data.shuffle(buffer_size=256).batch(batch, drop_remainder=True)

class SmallConvNet(nn.Cell):
    def __init__(self, classes=10):
        super().__init__()
        self.features = nn.SequentialCell(
            nn.Conv2d(1, 4, 5, pad_mode="valid"), nn.ReLU(), nn.MaxPool2d(2, 2),
            nn.Conv2d(4, 8, 5, pad_mode="valid"), nn.ReLU(), nn.MaxPool2d(2, 2))
        self.flatten = nn.Flatten()
        self.head = nn.Dense(8 * 5 * 5, classes)

    def construct(self, x):
        return self.head(self.flatten(self.features(x)))

ms.set_seed(3)
train_data, test_data = pipeline("MNIST_Data/train"), pipeline("MNIST_Data/test")
net = SmallConvNet()
loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
opt = nn.Momentum(net.trainable_params(), learning_rate=0.02, momentum=0.9)
saver = ModelCheckpoint(prefix="smallconv", directory="./ckpt",
                        config=CheckpointConfig(save_checkpoint_steps=train_data.get_dataset_size(),
                                                keep_checkpoint_max=4))
model = Model(net, loss, opt, metrics={"Accuracy": nn.Accuracy()})
model.train(6, train_data, callbacks=[saver, LossMonitor(10)], dataset_sink_mode=False)
print(model.eval(test_data, dataset_sink_mode=False))
print(ms.load_param_into_net(net, ms.load_checkpoint(saver.latest_ckpt_file_name)))
batch = next(test_data.create_dict_iterator())
guess = np.argmax(model.predict(ms.Tensor(batch["image"])).asnumpy(), axis=1)
print("guess", guess.tolist(), "truth", batch["label"].asnumpy().tolist())
'''


def renamed(source: str) -> str:
    """The import rename: ``mindspore`` becomes ``graphcell`` (``import graphcell as mindspore``
    where the script names the package itself)."""
    source = source.replace("import mindspore\n", "import graphcell as mindspore\n")
    source = source.replace("import mindspore as ms\n", "import graphcell as ms\n")
    source = re.sub(r"\b(from|import) mindspore\.", r"\1 graphcell.", source)
    return source.replace("from mindspore import", "from graphcell import")


def write_mnist(root, split: str, count: int, seed: int) -> None:
    """``count`` 28x28 digits in MNIST's idx files: class ``c`` is a bright vertical bar at
    columns ``2c+4 .. 2c+6`` over noise."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 10, count).astype(np.uint8)
    images = rng.integers(0, 60, (count, 28, 28)).astype(np.uint8)
    for image, label in zip(images, labels):
        image[4:24, 2 * label + 4:2 * label + 7] = 230
    prefix = "train" if split == "train" else "t10k"
    folder = root / "MNIST_Data" / split
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / f"{prefix}-images-idx3-ubyte", "wb") as f:
        f.write(struct.pack(">IIII", 0x803, count, 28, 28) + images.tobytes())
    with open(folder / f"{prefix}-labels-idx1-ubyte", "wb") as f:
        f.write(struct.pack(">II", 0x801, count) + labels.tobytes())


@pytest.fixture
def mnist(tmp_path, monkeypatch):
    write_mnist(tmp_path, "train", 640, seed=0)
    write_mnist(tmp_path, "test", 192, seed=1)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GRAPHCELL_PROGRESS", "0")
    return tmp_path


def run_script(path, source: str, **init_globals) -> None:
    """Write the renamed script to ``path`` and run it as ``python path`` would (graph mode reads
    the source of the cells it compiles from the file)."""
    path.write_text(renamed(source))
    runpy.run_path(str(path), init_globals=init_globals, run_name="__main__")


@pytest.mark.xfail(not hasattr(ms.nn, "CrossEntropyLoss"), strict=True,
                   reason="nn.CrossEntropyLoss lands with issue 17's losses")
def test_a_quick_start_style_program_runs_after_the_rename(mnist, capsys):
    run_script(mnist / "digits.py", QUICK_START)
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "['image', 'label']"
    assert out[1] == "batch (32, 1, 28, 28) Float32 / (32,) Int32"
    assert out[2] == "batch (32, 1, 28, 28) Float32 / (32,)"
    accuracies = [float(m) for m in re.findall(r"accuracy ([\d.]+)%", "\n".join(out))]
    assert len(accuracies) == 4 and accuracies[2] > 90.0, out
    assert accuracies[3] == accuracies[2]            # the reloaded net is the trained one
    assert "missing []" in out and (mnist / "digits.ckpt").exists()
    assert sum(line.startswith("guess ") for line in out) == 1


@pytest.mark.parametrize("mode", ["PYNATIVE_MODE", "GRAPH_MODE"])
def test_the_model_workflow_on_mnist_files(mnist, capsys, mode):
    try:
        run_script(mnist / "smallconv.py", MODEL_WORKFLOW, MODE=getattr(ms, mode))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    out = capsys.readouterr().out.splitlines()
    losses = [line for line in out if line.startswith("epoch: ")]
    assert [line.split(",")[0] for line in losses] == [
        f"epoch: {e} step: {s}" for e in range(1, 7) for s in (10, 20)]
    accuracy = [line for line in out if line.startswith("{'Accuracy': ")]
    assert len(accuracy) == 1 and float(accuracy[0].split(": ")[1].rstrip("}")) > 0.9, out
    # every parameter of the network was in the checkpoint, which also holds the optimizer's
    reload = [line for line in out if line.startswith("([], [")]
    assert len(reload) == 1 and "'moments.head.weight'" in reload[0], out
    assert sorted(p.name for p in (mnist / "ckpt").iterdir()) == [
        f"smallconv-{e}_20.ckpt" for e in range(3, 7)]      # keep_checkpoint_max=4
    guess, truth = re.fullmatch(r"guess (\[.*\]) truth (\[.*\])", out[-1]).groups()
    assert (np.array(eval(guess)) == np.array(eval(truth))).mean() > 0.8  # noqa: S307
