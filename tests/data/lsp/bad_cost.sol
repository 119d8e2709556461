lsp-solution 1
status feasible
cost 1
op load_x 0
op load_w 0
op mm 0
op out 0
