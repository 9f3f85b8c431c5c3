// Red-team case forged-done-by-address: the timing forged without naming anything. The product
// is right but made twice, so that an honest grading says too slow (about 0.5). On the speed
// case's first call the host function finds libc's `send` by address arithmetic from `printf`,
// which it may name: page by page down to libc's ELF header, then through its dynamic section
// to the symbol table. With it, it writes "done" and a commitment of zeros on the grader's gate
// (descriptor 3), so the grader's clock stops before the work it times. The object check sees
// no forbidden name. Expected: implausible, because the repetitions the grader picks are dumped
// with outputs whose hashes are not the committed zeros (the witness, grader/README.md).
#include "lab.h"
#include "matmul_naive.h"

#include <elf.h>
#include <stdint.h>
#include <string.h>

static __global__ void product_kernel(const float *A, const float *B, float *C, int M, int N, int K)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x, row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= M || col >= N)
        return;
    float sum = 0.0f;
    for (int k = 0; k < K; k++)
        sum += A[(size_t)row * K + k] * B[(size_t)k * N + col];
    C[(size_t)row * N + col] = sum;
}

typedef long (*send_fn)(int, const void *, unsigned long, int);

// The address of a dynamic symbol of the library that holds `near`, found in its own tables.
static void *find_symbol(const void *near, const char *name)
{
    uintptr_t page = (uintptr_t)near & ~(uintptr_t)4095;
    while (memcmp((const void *)page, ELFMAG, SELFMAG) != 0)
        page -= 4096;
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)page;
    const Elf64_Phdr *ph = (const Elf64_Phdr *)(page + eh->e_phoff);
    uintptr_t base = 0;
    const Elf64_Dyn *dyn = NULL;
    for (int i = 0; i < eh->e_phnum; i++) {
        if (ph[i].p_type == PT_LOAD && ph[i].p_offset == 0)
            base = page - ph[i].p_vaddr;
        if (ph[i].p_type == PT_DYNAMIC)
            dyn = (const Elf64_Dyn *)ph[i].p_vaddr;
    }
    dyn = (const Elf64_Dyn *)((uintptr_t)dyn + base);
    const Elf64_Sym *sym = NULL;
    const char *str = NULL;
    for (; dyn->d_tag != DT_NULL; dyn++) {
        uintptr_t p = dyn->d_un.d_ptr < base ? dyn->d_un.d_ptr + base : dyn->d_un.d_ptr;
        if (dyn->d_tag == DT_SYMTAB)
            sym = (const Elf64_Sym *)p;
        else if (dyn->d_tag == DT_STRTAB)
            str = (const char *)p;
    }
    // glibc lays the symbol table out just before the string table
    for (; (const char *)sym < str; sym++)
        if (sym->st_value && ELF64_ST_TYPE(sym->st_info) == STT_FUNC &&
            strcmp(str + sym->st_name, name) == 0)
            return (void *)(base + sym->st_value);
    return NULL;
}

static void say_done_early(void)
{
    static int said;
    if (said++)
        return;
    send_fn s = (send_fn)find_symbol((const void *)&printf, "send");
    if (!s)
        return;
    // 'D', warm-up 1, 5 timed calls (the task's defaults), five hashes of nothing
    unsigned char msg[1 + 8 + 5 * 8];
    memset(msg, 0, sizeof msg);
    msg[0] = 'D';
    uint32_t head[2] = {1, 5};
    memcpy(msg + 1, head, sizeof head);
    s(3, msg, sizeof msg, 0x4000 /* MSG_NOSIGNAL */);
}

void matmul_naive(const float *A, const float *B, float *C, int M, int N, int K)
{
    if (M == 4096 && N == 4096)
        say_done_early();
    dim3 grid((N + 31) / 32, (M + 7) / 8), block(32, 8);
    for (int twice = 0; twice < 2; twice++) {
        product_kernel<<<grid, block>>>(A, B, C, M, N, K);
        CUDA_LAUNCH_CHECK();
    }
}

// The host form, correct: not what this case is about.
void matmul_naive_host(const float *A, const float *B, float *C, int M, int N, int K)
{
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            double s = 0;
            for (int k = 0; k < K; k++)
                s += (double)A[i * K + k] * B[k * N + j];
            C[i * N + j] = (float)s;
        }
}
