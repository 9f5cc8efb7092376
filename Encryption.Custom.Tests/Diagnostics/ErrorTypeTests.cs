using System.Net;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Tests.Diagnostics;

/// <summary>The one error vocabulary, as applications and the hosting package reach it.</summary>
public sealed class ErrorTypeTests
{
    [Fact]
    public void GetErrorType_EachKindOfFailure_IsItsShortSecretFreeName()
    {
        const string Secret = "078-05-1120";

        Assert.Equal("InvalidCipherText", DiagnosticNames.GetErrorType(new EncryptionException(EncryptionErrorKind.InvalidCipherText, "bad " + Secret)));
        Assert.Equal("cosmos.404", DiagnosticNames.GetErrorType(new CosmosException("missing " + Secret, HttpStatusCode.NotFound, 0, "activity", 1.0)));
        Assert.Equal("canceled", DiagnosticNames.GetErrorType(new TaskCanceledException(Secret)));
        Assert.Equal("System.InvalidOperationException", DiagnosticNames.GetErrorType(new InvalidOperationException(Secret)));
        Assert.Equal(
            "KeyNotAccepted",
            DiagnosticNames.GetErrorType(new EncryptionResponseException(HttpStatusCode.Created, "\"e1\"", 5, new EncryptionException(EncryptionErrorKind.KeyNotAccepted, "no"))));
    }

    [Fact]
    public void GetErrorType_Null_Throws() =>
        Assert.Throws<ArgumentNullException>(() => DiagnosticNames.GetErrorType(null!));

    [Fact]
    public void EncryptionResponseException_WithoutCause_Throws() =>
        Assert.Throws<ArgumentNullException>(() => new EncryptionResponseException(HttpStatusCode.OK, null, 1, null!));
}
