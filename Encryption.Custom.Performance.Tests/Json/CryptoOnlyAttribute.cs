namespace Encryption.Custom.Performance.Tests.Json;

/// <summary>
/// Marks a benchmark that does only the cryptographic work of <see cref="DocumentMethod"/> (the same values, key and
/// AEAD calls): the numerator of the efficiency ratio. Being processor independent, it runs once per case.
/// </summary>
[AttributeUsage(AttributeTargets.Method, AllowMultiple = false)]
public sealed class CryptoOnlyAttribute(string documentMethod) : ProcessorIndependentAttribute
{
    public string DocumentMethod { get; } = documentMethod;
}
