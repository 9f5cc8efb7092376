using Encryption.Custom.Performance.Tests.Documents;

namespace Encryption.Custom.Performance.Tests.Json;

/// <summary>One shape and size of the interleaved ratio report: best nanoseconds per operation of each case.</summary>
public sealed record RatioRow(
    DocumentShape Shape,
    int Size,
    double NewtonsoftEncrypt,
    double StreamEncrypt,
    double CryptoOnlyEncrypt,
    double NewtonsoftDecrypt,
    double StreamDecrypt,
    double CryptoOnlyDecrypt)
{
    public double EncryptSpeedup => NewtonsoftEncrypt / StreamEncrypt;

    public double DecryptSpeedup => NewtonsoftDecrypt / StreamDecrypt;

    public double EncryptEfficiency => CryptoOnlyEncrypt / StreamEncrypt;

    public double DecryptEfficiency => CryptoOnlyDecrypt / StreamDecrypt;
}
