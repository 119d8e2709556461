# laysim problem examples/fig1.lg
# target nc-v2 hash be37071dd03ddfad
# table hash 2510739ea2fd1e8b
# exact-transpose 0
# built in 0.032 s
lsp 1
tensor A 2 p:0 p:1
transpose A 0 2560 2560 0
op A source 0 A
cfg 0 0
cfg 2560 1
tensor B 2 p:0 p:1
transpose B 0 2560 2560 0
op B source 0 B
cfg 0 0
cfg 2560 1
tensor C 2 p:0 p:1
transpose C 0 2560 2560 0
op C matmul 2 A B C
cfg 3745 1 0 0
cfg 3745 1 0 1
tensor D 1 p:1
op D reduce_sum 1 C D
cfg 2373 1 0
cfg 2641 0 0
tensor R 2 p:0 p:1
transpose R 0 2560 2560 0
op R add 2 D B R
cfg 3632 0 0 0
cfg 3632 0 1 1
op return:R return 1 R -
cfg 0 0
cfg 0 1
