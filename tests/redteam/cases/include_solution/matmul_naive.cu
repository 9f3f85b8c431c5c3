// Hostile: the solution through the lesson's include path (-Ilessons/03-naive-matmul).
#include "../../solutions/03-naive-matmul/matmul_naive.cu"
