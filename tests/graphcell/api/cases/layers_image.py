"""Golden cases of the image layers (``graphcell/nn/layers/image.py``)."""
from golden_cases import T, case

CASES = [
    case("nn.PixelShuffle", T((2, 8, 2, 3)), init=dict(upscale_factor=2)),
    case("nn.PixelShuffle", T((9, 2, 2)), init=dict(upscale_factor=3)),
    case("nn.PixelShuffle", T((2, 6, 2, 3)), init=dict(upscale_factor=2), id="channels"),
    case("nn.PixelUnshuffle", T((2, 2, 4, 6)), init=dict(downscale_factor=2)),
    case("nn.CentralCrop", T((3, 8, 6)), init=dict(central_fraction=0.5)),
    case("nn.CentralCrop", T((2, 3, 7, 9)), init=dict(central_fraction=0.7)),
    case("nn.CentralCrop", T((2, 3, 4, 4)), init=dict(central_fraction=1.0)),
    case("nn.CentralCrop", T((2, 3, 4, 4)), init=dict(central_fraction=0), id="zero"),
    case("nn.ImageGradients", T((2, 3, 4, 5)), init=()),
    case("nn.ImageGradients", T((2, 3, 1, 5)), init=()),
    # PSNR, SSIM, MSSSIM: MindSpore 2.10 fails on them in PyNative mode on CPU (a ScalarCast of
    # a Float32); tests/graphcell/nn/test_layers_image.py checks them against numpy (and
    # MindSpore's graph mode gives the same numbers there)
    case("nn.SSIM", T((1, 1, 4, 4)), T((1, 1, 4, 4)), init=(), id="too_small"),
]
