import torch

# `shape` bu kod çalışmadan önce tanımlanır
cihaz = "cuda" if torch.cuda.is_available() else "cpu"

grup = torch.zeros(shape, device=cihaz)  # doğrudan aygıtta: kopya yok
print(grup.shape)
print(grup.dtype)
print(grup.nelement())
print(grup.nelement() * grup.element_size() / 1_000_000, "MB")
print(grup.device)
