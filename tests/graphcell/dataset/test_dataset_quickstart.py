"""A data pipeline in the style of MindSpore's beginner "Quick Start" (our own code, the tutorial's
API calls), on MNIST-format files this test writes in the tutorial's layout (``MNIST_Data/train``,
``MNIST_Data/test``), feeding a hand-written training step."""
import numpy as np

import graphcell as mindspore
from graphcell import nn
from graphcell.dataset import MnistDataset, transforms, vision
from dataset_files import pattern_images, write_mnist


def datapipe(source, batch):
    """Scale and normalise the images to CHW float32, cast the labels to Int32, batch."""
    to_float = [vision.Rescale(1 / 255.0, 0), vision.Normalize(mean=(0.13,), std=(0.31,)),
                vision.HWC2CHW()]
    return source.map(to_float, 'image').map(transforms.TypeCast(mindspore.int32), 'label') \
        .batch(batch)


def test_quick_start_data_pipeline(tmp_path, monkeypatch):
    root = tmp_path / "MNIST_Data"
    write_mnist(root / "train", pattern_images(150, (28, 28)), np.arange(150) % 10, "train")
    write_mnist(root / "test", pattern_images(70, (28, 28), 1), np.arange(70) % 10, "test")
    monkeypatch.chdir(tmp_path)

    train_dataset = MnistDataset('MNIST_Data/train')
    test_dataset = MnistDataset('MNIST_Data/test')
    assert train_dataset.get_col_names() == ['image', 'label']

    train_dataset = datapipe(train_dataset, 64)
    test_dataset = datapipe(test_dataset, 64)

    for image, label in test_dataset.create_tuple_iterator():
        assert (image.shape, image.dtype) == ((64, 1, 28, 28), mindspore.float32)
        assert (label.shape, label.dtype) == ((64,), mindspore.int32)
        break
    for data in test_dataset.create_dict_iterator():
        assert data['image'].shape == (64, 1, 28, 28) and data['label'].dtype == mindspore.int32
        break

    model = nn.SequentialCell(nn.Flatten(), nn.Dense(28 * 28, 32), nn.ReLU(), nn.Dense(32, 10))
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    optimizer = nn.SGD(model.trainable_params(), 1e-2)

    def forward_fn(data, label):
        return loss_fn(model(data), label)
    grad_fn = mindspore.value_and_grad(forward_fn, None, optimizer.parameters)

    before = model.trainable_params()[0].asnumpy().copy()
    size = train_dataset.get_dataset_size()
    losses = []
    model.set_train()
    for batch, (data, label) in enumerate(train_dataset.create_tuple_iterator()):
        loss, grads = grad_fn(data, label)
        optimizer(grads)
        losses.append(float(loss.asnumpy()))
    assert size == 3 and len(losses) == 3 and np.isfinite(losses).all()
    assert not np.array_equal(before, model.trainable_params()[0].asnumpy())

    model.set_train(False)
    total, correct = 0, 0
    for data, label in test_dataset.create_tuple_iterator():
        pred = model(data)
        total += len(data)
        correct += (pred.argmax(1) == label).asnumpy().sum()
    assert total == 70 and 0 <= correct <= 70
