import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

# `seed`, `samples` ve `batch_size` bu kod çalışmadan önce tanımlanır
cihaz = "cuda" if torch.cuda.is_available() else "cpu"

torch.manual_seed(seed)
girdiler = torch.randn(samples, 32)  # CPU'da üretilir: her makinede aynı sayılar
model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 4)).to(cihaz)
yukleyici = DataLoader(TensorDataset(girdiler), batch_size=batch_size, pin_memory=cihaz == "cuda")

en_kotu = torch.zeros((), device=cihaz)  # şimdiye kadarki en büyük fark, aygıtta
toplam = torch.zeros((), device=cihaz)  # float32 çıktının |.| toplamı, aygıtta
with torch.no_grad():
    for (xb,) in yukleyici:
        xb = xb.to(cihaz, non_blocking=True)
        tam = model(xb)
        with torch.autocast(device_type=cihaz, dtype=torch.bfloat16):
            yarim = model(xb)
        en_kotu = torch.maximum(en_kotu, (yarim.float() - tam).abs().max())
        toplam += tam.abs().sum()

en_kotu = en_kotu.item()  # tek geri kopyalar: döngüden sonra
print("batches:", len(yukleyici))
print(yarim.dtype)
print(yarim.device.type)
print("differs:", en_kotu > 0)
print("within 0.05:", en_kotu < 0.05)
print(f"mean |output|: {toplam.item() / (samples * 4):.4f}")
