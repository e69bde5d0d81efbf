import torch

cihaz = "cuda" if torch.cuda.is_available() else "cpu"

x = torch.ones(2, 3).to(cihaz)
carpim = x * 3  # cihaz üzerinde hesaplanır
sonuc = carpim.cpu()  # ana belleğe geri kopyalanır

print(sonuc.tolist())
print(carpim.device.type)
