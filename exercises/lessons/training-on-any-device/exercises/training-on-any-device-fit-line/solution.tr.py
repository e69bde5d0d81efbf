import torch
from torch import nn

# `points` bu kod çalışmadan önce tanımlanır: [x, y] çiftlerinden bir liste
cihaz = "cuda" if torch.cuda.is_available() else "cpu"

veri = torch.tensor(points)  # CPU'da oluşturulur
x = veri[:, :1].to(cihaz)  # biçim (n, 1): her satırda bir girdi
y = veri[:, 1:].to(cihaz)

torch.manual_seed(0)
model = nn.Linear(1, 1).to(cihaz)  # CPU'da ilklenir, sonra taşınır
eniyilestirici = torch.optim.SGD(model.parameters(), lr=0.05)
kayip_fn = nn.MSELoss()

for adim in range(1, 201):
    kayip = kayip_fn(model(x), y)
    eniyilestirici.zero_grad()
    kayip.backward()
    eniyilestirici.step()
    if adim == 1:
        print(f"first loss {kayip.item():.4f}")
print(f"last loss {kayip.item():.4f}")
print(f"weight {model.weight.item():.4f} bias {model.bias.item():.4f}")

model.eval()
with torch.no_grad():
    tahmin = model(torch.tensor([[0.0], [1.0], [2.0]], device=cihaz))
print("predictions", [round(deger, 4) for deger in tahmin.flatten().tolist()])
print("requires grad", tahmin.requires_grad)
print("device", model.weight.device.type)
