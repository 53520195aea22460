/* Test-only stand-in for bcryptprimitives.dll under wine 8.0, which lacks
 * ProcessPrng (Rust's std fills its random keys with it on Windows 10 and
 * later). Built by tests/e2e/install/release_check.rs into the test's build
 * output with x86_64-w64-mingw32-gcc and put first on wine's DLL path by the
 * wine launcher; never part of a release. ProcessPrng's contract (fill the
 * buffer, always return TRUE) is Microsoft's "ProcessPrng function"
 * reference; the bytes come from RtlGenRandom (advapi32 SystemFunction036),
 * which wine implements. */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length)
{
    while (length > 0) {
        ULONG chunk = length > 0x40000000 ? 0x40000000 : (ULONG)length;
        if (!SystemFunction036(data, chunk)) {
            FatalExit(1);
        }
        data += chunk;
        length -= chunk;
    }
    return TRUE;
}
