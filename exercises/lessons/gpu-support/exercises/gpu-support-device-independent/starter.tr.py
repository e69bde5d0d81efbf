import torch

# kodunuzu buraya yazın
