import time

import torch

# `size` ve `repeats` bu kod çalışmadan önce tanımlanır
cihaz = "cuda" if torch.cuda.is_available() else "cpu"

torch.manual_seed(0)
a = torch.randint(-2, 3, (size, size)).float().to(cihaz)  # CPU'da üretilir, sonra taşınır


def bekle():
    """GPU sıradaki bütün işleri bitirene kadar bekler (CPU'da yapacak bir şey yok)."""
    if cihaz == "cuda":
        torch.cuda.synchronize()


def sure_ms(fn, repeats):
    fn()  # ısınma: bir kerelik hazırlık ölçülmez
    sureler = []
    for _ in range(repeats):
        bekle()  # boş bir sırayla başla
        baslangic = time.perf_counter()
        sonuc = fn()
        bekle()  # iş sıraya konunca değil, bitince dur
        sureler.append((time.perf_counter() - baslangic) * 1000)
    return sureler, sonuc


sureler, sonuc = sure_ms(lambda: a @ a, repeats)
print(sonuc.device.type)
print(len(sureler))
print(all(t > 0 for t in sureler))
print(torch.equal(sonuc.cpu(), a.cpu() @ a.cpu()))
print(int(sonuc.sum().item()))
