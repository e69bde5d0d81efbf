import torch

# `scores` ve `pass_mark` zaten tanımlı (göreve bakın).
cihaz = "cpu"  # GPU varsa "cuda" seçin

notlar = torch.tensor(scores).to(cihaz)
ortalama = notlar.mean()

print(notlar.dtype)
# passed, rate ve mean satırlarını, sonra ortalamanın veri türünü ve aygıt türünü yazdırın
