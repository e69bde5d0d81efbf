import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

# `seed`, `samples` ve `batch_size` zaten tanımlı: örnekte 0, 64 ve 16
cihaz = "cpu"  # GPU varsa "cuda" seçin

torch.manual_seed(seed)
girdiler = torch.randn(samples, 32)
model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 4)).to(cihaz)
yukleyici = DataLoader(TensorDataset(girdiler), batch_size=batch_size)

with torch.no_grad():
    for (xb,) in yukleyici:
        tam = model(xb)
        print(tam.abs().mean().item())  # her grupta bir geri kopya: değerleri aygıtta tutun

# her grubu float32 ile ve autocast altında (bfloat16) çalıştırın, en büyük farkı ve
# float32 çıktının |.| toplamını aygıtta izleyin, sonra altı satırı yazdırın
