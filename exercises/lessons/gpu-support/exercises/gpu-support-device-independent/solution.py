import torch

cihaz = "cuda" if torch.cuda.is_available() else "cpu"

x = torch.ones(2, 3).to(cihaz)
sonuc = (x * 3).cpu()  # computed on cihaz, then copied back

print(sonuc.tolist())
print(sonuc.device.type == "cpu")
