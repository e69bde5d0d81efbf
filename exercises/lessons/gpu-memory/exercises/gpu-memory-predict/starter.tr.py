import torch
from torch import nn

# `layers` ve `batch_size` zaten tanımlı: örnekte [784, 256, 10] ve 64
cihaz = "cpu"  # GPU varsa "cuda" seçin


def kur():
    return nn.Sequential(nn.Linear(layers[0], layers[-1]))  # her çifte bir katman, arada ReLU


# modeli meta aygıtında kurun, boş bir grubu içinden geçirin, sayıları yazdırın;
# sonra onu aygıtta gerçekten kurun
