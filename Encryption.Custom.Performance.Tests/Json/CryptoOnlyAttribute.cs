namespace Encryption.Custom.Performance.Tests.Json;

/// <summary>
/// Marks a benchmark that does only the cryptographic work of <see cref="DocumentMethod"/> (the same values, key and
/// AEAD calls): the numerator of the efficiency ratio. It runs once per case, under the stream processor's parameter.
/// </summary>
[AttributeUsage(AttributeTargets.Method, AllowMultiple = false)]
public sealed class CryptoOnlyAttribute(string documentMethod) : Attribute
{
    public string DocumentMethod { get; } = documentMethod;
}
