import torch

# `seed` ve `scores` bu kod çalışmadan önce tanımlanır
cihaz = "cuda" if torch.cuda.is_available() else "cpu"
puanlar = torch.tensor(scores, device=cihaz)


def sira_cek(tohum):
    uretec = torch.Generator().manual_seed(tohum)  # CPU'da: her yerde aynı
    return torch.randperm(len(scores), generator=uretec)


sira = sira_cek(seed)
yari = len(scores) // 2
takim_a, takim_b = sira[:yari].to(cihaz), sira[yari:].to(cihaz)
toplam_a, toplam_b = puanlar[takim_a].sum(), puanlar[takim_b].sum()

print("order", sira.tolist())
print("team a", sorted(takim_a.tolist()))
print("team b", sorted(takim_b.tolist()))
print("totals", toplam_a.item(), toplam_b.item())
print("same again", torch.equal(sira_cek(seed), sira))
print("device", toplam_a.device.type)
