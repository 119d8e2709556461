lsp 1
tensor a 1
tensor b 1
op use add 1 b a
cfg 0 0 0
