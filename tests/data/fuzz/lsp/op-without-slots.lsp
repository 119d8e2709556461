lsp 1
op a input 0 -
cfg 5
