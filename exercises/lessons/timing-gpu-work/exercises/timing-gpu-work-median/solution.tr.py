import statistics
import time

import torch

cihaz = "cuda" if torch.cuda.is_available() else "cpu"

torch.manual_seed(0)
a = torch.rand(256, 256).to(cihaz)


def bekle():
    """GPU sıradaki bütün işleri bitirene kadar bekler (CPU'da yapacak bir şey yok)."""
    if cihaz == "cuda":
        torch.cuda.synchronize()


a @ a  # ısınma: bir kerelik hazırlık ölçülmez
sureler = []
for _ in range(20):
    bekle()
    baslangic = time.perf_counter()
    a @ a
    bekle()
    sureler.append((time.perf_counter() - baslangic) * 1000)

print("device", cihaz)
print("runs", len(sureler))
# Bir süre çalıştırmadan çalıştırmaya değişir: çıktı satır satır kalıplarla denetlenir.
print(f"median {statistics.median(sureler):.3f} ms")
print(f"fastest {min(sureler):.3f} ms")
