lsp 1#1Ålsqqqqqqqqqqqqqqqqqq
# #„
# 
# 
# table-hash::::::::## 
# 
# 
# #„ 
# 1#1Å#sqqqqqqqqqqqqqq 
# table-hash::::::::## 
# 
# 
# #„
# 
# 
# :::::
#:::::## 
# 
# 
# #„
# 
# 
# :::::
# #„
# 
# 
# 1#1Å#sqqqqqqqqqqqq?qqqqq
# #„
# 
# 
# table-hash:::::{{{{{{{{{{{{{{{{{{{lsp 1# :wrac ws on
# alsp 1o on
# 	problem-hash{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{0# `tax˚‹ﬂê{:::