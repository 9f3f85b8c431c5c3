int f(int i)
{
    return 2 * i  /* missing semicolon */
}
