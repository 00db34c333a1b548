/* the other half of the cycle in ping.c */
int ping(int n);

int pong(int n)
{
    return n > 0 ? ping(n - 1) : 1;
}
