"""Real models written the way MindSpore's model zoo writes them (issue 17 item 4).

Each module is written against ``import graphcell as ms`` / ``from graphcell import nn, ops`` and
nothing graphcell-specific, so the same file runs under MindSpore 2.10 when the module name
``graphcell`` is mapped to ``mindspore`` (``tools/record_model_goldens.py`` records MindSpore's
results that way; ``tests/graphcell/models/`` compares graphcell with them).

- ``resnet``: ResNet50 (bottleneck blocks, ``make_layer``), ``resnet50(num_classes=...)``;
- ``mobilenet_v2``: MobileNetV2 (inverted residual blocks), ``mobilenet_v2(num_classes=...)``;
- ``densenet``: DenseNet121 (dense blocks and transitions), ``densenet121(num_classes=...)``;
- ``lstm_classifier``: an LSTM text classifier (Embedding, nn.LSTM, Dense);
- ``vit``: a ViT block (patch embedding, attention, MLP with GELU, LayerNorm);
- ``bert``: a small BERT encoder (embeddings, self-attention, feed-forward, pooler);
- ``weights``: seeded weights and inputs that come out the same in both frameworks.
"""
