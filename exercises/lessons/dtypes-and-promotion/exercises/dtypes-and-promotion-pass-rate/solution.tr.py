import torch

cihaz = "cuda" if torch.cuda.is_available() else "cpu"

notlar = torch.tensor(scores, device=cihaz)  # tam sayılar int64 kalır
gecenler = notlar >= pass_mark  # bir bool tensörü
ortalama = notlar.float().mean()  # mean kayan nokta ister

print(notlar.dtype)
print("passed", gecenler.sum().item())
print("rate", gecenler.float().mean().item())
print("mean", ortalama.item())
print(ortalama.dtype)
print(ortalama.device.type)
