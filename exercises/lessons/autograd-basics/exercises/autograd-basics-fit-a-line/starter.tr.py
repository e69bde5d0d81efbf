import torch

# `xs`, `ys`, `steps` ve `lr` zaten tanımlı (göreve bakın).
cihaz = "cuda" if torch.cuda.is_available() else "cpu"

x = torch.tensor(xs, device=cihaz)
y = torch.tensor(ys, device=cihaz)
w = torch.zeros((), requires_grad=True).to(cihaz)  # yalnızca CPU'da çalışır: neden?
b = torch.zeros((), requires_grad=True).to(cihaz)

kayip = ((w * x + b - y) ** 2).mean()
print("start loss", kayip.item())
# `steps` kez tekrarlayın: kayıp, backward, kaydetmeden güncelleme, gradyanları temizleme
