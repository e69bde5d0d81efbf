import time

import torch

cihaz = "cpu"  # GPU varsa "cuda" seçin

torch.manual_seed(0)
a = torch.rand(256, 256).to(cihaz)

baslangic = time.perf_counter()
a @ a
gecen = time.perf_counter() - baslangic  # tek çalıştırma, saniye cinsinden, GPU beklenmeden

print("device", cihaz)
print("runs", 1)
print("median", gecen)
