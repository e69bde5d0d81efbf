import torch

cihaz = "cuda" if torch.cuda.is_available() else "cpu"

x = torch.tensor(xs, device=cihaz)
y = torch.tensor(ys, device=cihaz)
# Aygıtta oluşturuldular: orada yapraktırlar ve backward() .grad'larını doldurur.
w = torch.zeros((), device=cihaz, requires_grad=True)
b = torch.zeros((), device=cihaz, requires_grad=True)

for adim in range(steps):
    kayip = ((w * x + b - y) ** 2).mean()
    kayip.backward()
    if adim == 0:
        print("start loss", kayip.item())
        print("start grads", w.grad.item(), b.grad.item())
    with torch.no_grad():
        w -= lr * w.grad
        b -= lr * b.grad
    w.grad = None
    b.grad = None

with torch.no_grad():
    kayip = ((w * x + b - y) ** 2).mean()
print("final loss", kayip.item())
print("w", w.item(), "b", b.item())
print(w.device.type)
