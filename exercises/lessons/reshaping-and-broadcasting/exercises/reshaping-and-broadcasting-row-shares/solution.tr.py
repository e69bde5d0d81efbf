import torch

cihaz = "cuda" if torch.cuda.is_available() else "cpu"

saatler = torch.tensor(table, device=cihaz)
paylar = saatler / saatler.sum(dim=1, keepdim=True)  # (satır, 1) sütunlar boyunca yayınlanır

print(saatler.shape)
print("shares", paylar.tolist())
print("largest", paylar.argmax(dim=1).tolist())
print("above half", (paylar > 0.5).sum().item())
print("column means", paylar.mean(dim=0).tolist())
print(paylar.device.type)
