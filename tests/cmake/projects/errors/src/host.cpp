int klt_host_only() { return 1; }
