import torch

# write your code here
