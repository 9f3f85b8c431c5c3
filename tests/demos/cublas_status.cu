// The lab's cuBLAS status reporting, which needs no GPU: prints the name of every status given
// on the command line (as numbers), then fails a CUBLAS_CHECK on the last one.
#include "lab.h"

#include <cublas_v2.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        printf("%s\n", lab_cublas_status_name(atoi(argv[i])));
    if (argc > 1)
        CUBLAS_CHECK((cublasStatus_t)atoi(argv[argc - 1]));
    return 0;
}
