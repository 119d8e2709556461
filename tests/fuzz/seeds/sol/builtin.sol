lsp-solution 1
status feasible
cost 104
bound 60
op load_x 0
op mm 2
op out 0
