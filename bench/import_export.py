#!/usr/bin/python3
"""bench/import_export.py KIND NAME OPSET OUT.onnx: export one model of bench/import.corpus.

KIND tv: a torchvision architecture (weights=None); KIND nn: one of the small torch.nn
models below. Exported with Debian's python3-torch/python3-torchvision, export_params=False
(parameters become graph inputs without data: only shapes are imported)."""
import sys

import torch
import torch.nn as nn
import torchvision

IMAGE = {"inception_v3": 299, "fasterrcnn_mobilenet_v3_large_320_fpn": 320,
         "ssdlite320_mobilenet_v3_large": 320, "ssd300_vgg16": 300}


class Causal(nn.Module):
    """One causal self-attention head: the mask is torch.triu of the scores (ONNX Trilu)."""

    def __init__(self, d=128):
        super().__init__()
        self.qkv = nn.Linear(d, 3 * d)

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        s = q @ k.transpose(-1, -2)
        s = torch.tril(s) + torch.triu(torch.ones_like(s), diagonal=1) * -1e4
        return torch.softmax(s, -1) @ v


class ConvGroupNorm(nn.Module):
    """A conv block with GroupNorm (ONNX InstanceNormalization between two reshapes)."""

    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(3, 32, 3, padding=1), nn.GroupNorm(8, 32), nn.SiLU(),
                                  nn.Conv2d(32, 64, 3, stride=2), nn.GroupNorm(8, 64), nn.SiLU(),
                                  nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(64, 10))

    def forward(self, x):
        return self.body(x)


class Audio1d(nn.Module):
    """A 1-D conv audio classifier on one input channel (Conv and MaxPool over one channel)."""

    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.MaxPool1d(2), nn.Conv1d(1, 32, 9, padding=4), nn.ReLU(),
                                  nn.MaxPool1d(4), nn.Conv1d(32, 64, 9, padding=4), nn.ReLU(),
                                  nn.AdaptiveMaxPool1d(1), nn.Flatten(), nn.Linear(64, 12))

    def forward(self, x):
        return self.body(x)


class ShapeIf(nn.Module):
    """Scripted: an `if` on a shape (ONNX If whose condition folds to a constant)."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(64, 64)

    def forward(self, x):
        if x.shape[1] > 16:
            y = torch.relu(self.fc(x))
        else:
            y = torch.sigmoid(self.fc(x))
        return y


class ShapeLoop(nn.Module):
    """Scripted: a loop over the sequence length (ONNX Loop with a shape-derived trip count)."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(64, 64)

    def forward(self, x):
        h = torch.zeros(x.shape[0], 64)
        for t in range(x.shape[1]):
            h = torch.tanh(self.fc(x[:, t]) + h)
        return h


NN = {
    "lstm": (lambda: nn.LSTM(64, 128, num_layers=2), (32, 1, 64)),
    "gru_bidir": (lambda: nn.GRU(64, 96, bidirectional=True, batch_first=True), (1, 32, 64)),
    "transformer_encoder": (lambda: nn.TransformerEncoder(
        nn.TransformerEncoderLayer(256, 8, 1024, batch_first=True), 2), (1, 64, 256)),
    "transformer_decoder_layer": (lambda: nn.TransformerDecoderLayer(256, 8, 1024, batch_first=True),
                                  ((1, 32, 256), (1, 48, 256))),
    "causal_attention": (Causal, (1, 64, 128)),
    "conv_groupnorm": (ConvGroupNorm, (1, 3, 64, 64)),
    "audio_conv1d": (Audio1d, (1, 1, 8000)),
    "pixel_shuffle": (lambda: nn.Sequential(nn.Conv2d(3, 48, 3, padding=1), nn.PixelShuffle(4)),
                      (1, 3, 64, 64)),
    "shape_if": (lambda: torch.jit.script(ShapeIf()), (1, 32, 64)),
    "shape_loop": (lambda: torch.jit.script(ShapeLoop()), (1, 8, 64)),
}


def build(kind, name):
    if kind == "tv":
        mods = [torchvision.models, torchvision.models.segmentation,
                torchvision.models.detection, torchvision.models.video]
        mod = next(m for m in mods if hasattr(m, name))
        kw = {"weights_backbone": None} if mod in mods[1:3] else {}   # no download
        net = getattr(mod, name)(weights=None, **kw)
        side = IMAGE.get(name, 224)
        if "rcnn" in name or "ssd" in name or "retinanet" in name:
            return net, ([torch.randn(3, side, side)],)
        if name.startswith(("r3d", "r2plus1d", "mc3", "s3d", "mvit")):
            return net, (torch.randn(1, 3, 8, 112, 112),)
        return net, (torch.randn(1, 3, side, side),)
    make, shape = NN[name]
    shapes = shape if isinstance(shape[0], tuple) else (shape,)
    return make(), tuple(torch.randn(*s) for s in shapes)


def main():
    kind, name, opset, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    torch.manual_seed(0)
    net, args = build(kind, name)
    net.eval()
    # with gradients on, nn.MultiheadAttention and nn.TransformerEncoderLayer keep their
    # exportable path (their fused inference kernels have no ONNX form)
    torch.onnx.export(net, args, out, export_params=False, opset_version=opset)


if __name__ == "__main__":
    main()
