import torch
from torch import nn

# `seed` ve `inputs` bu kod çalışmadan önce tanımlanır
cihaz = "cuda" if torch.cuda.is_available() else "cpu"

torch.manual_seed(seed)
model = nn.Linear(4, 2)  # CPU'da, GPU'suz bir dizüstü bilgisayardaki gibi
torch.save(model.state_dict(), "model.pt")

yuklenen = nn.Linear(4, 2).to(cihaz)
durum = torch.load("model.pt", map_location=cihaz, weights_only=True)
yuklenen.load_state_dict(durum)

yuklenen.eval()
with torch.no_grad():
    ciktilar = yuklenen(torch.tensor(inputs).to(cihaz))

print("keys", sorted(durum))
print("loaded on", durum["weight"].device.type)
print("same weights", torch.equal(yuklenen.weight.cpu(), model.weight))
print("outputs", [[round(deger, 4) for deger in satir] for satir in ciktilar.tolist()])
print("requires grad", ciktilar.requires_grad)
