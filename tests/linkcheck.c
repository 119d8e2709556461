/* An empty program linked with the whole of one layer's library and only the libraries that
 * layer may use (tests/CMakeLists.txt): a call into a higher layer, even through a
 * hand-written prototype, is an undefined reference and fails the build. */
int main(void)
{
    return 0;
}
