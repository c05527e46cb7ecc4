console.log("paycore server: coming up")
