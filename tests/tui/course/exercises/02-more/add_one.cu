int f(int i) { return i + 1; }
