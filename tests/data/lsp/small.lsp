# A hand-written example: a matmul whose operands want the contraction axis on
# partitions, fed by a load that prefers the other layout.
lsp 1
tensor x 2 p:m p:k
transpose x 0 30 30 0
op load_x input 0 x
cfg 10 0          # m on partitions: contiguous DMA
cfg 40 1          # k on partitions: element-sized chunks
tensor w 2 p:k p:n
transpose w 0 25 25 0
op load_w weight 0 w
cfg 12 0
cfg 12 1
tensor y 2 p:m p:n
transpose y 0 20 20 0
op mm matmul 2 x w y
cfg 50 1 0 0      # stationary x: output m on partitions
cfg 52 1 0 1      # stationary w: output n on partitions
op out return 1 y -
cfg 0 1
