import itertools

import torch
from torch import nn

# `layers` ve `batch_size` bu kod çalışmadan önce tanımlanır
cihaz = "cuda" if torch.cuda.is_available() else "cpu"


def kur():
    parcalar = []
    for giris, cikis in itertools.pairwise(layers):
        parcalar += [nn.Linear(giris, cikis), nn.ReLU()]
    return nn.Sequential(*parcalar[:-1])  # son katmandan sonra ReLU yok


def agirlik_bayti(model):
    return sum(p.nelement() * p.element_size() for p in model.parameters())


with torch.device("meta"):  # yalnızca şekiller ve veri türleri: bellek ayrılmaz
    plan = kur()
    cikti = plan(torch.empty(batch_size, layers[0]))
tahmin = agirlik_bayti(plan)
print(sum(p.nelement() for p in plan.parameters()), "parameters")
print(tahmin, "bytes of weights")
print(4 * tahmin, "bytes to train with Adam")
print(list(cikti.shape))

model = kur().to(cihaz)  # şimdi gerçekten
print(next(model.parameters()).device.type)
print(agirlik_bayti(model) == tahmin)
